
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

yErfcx*
T0"ª