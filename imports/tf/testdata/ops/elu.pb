
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

yElux*
T0"ª