
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

yExpx*
T0"ª