
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

yAbsx*
T0"ª